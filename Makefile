# facecrop: `make demo` sets up and crops the bundled samples; `make test` sets up and runs every test.
SWIFT ?= swift
BIN := .build/release/facecrop

.PHONY: setup build demo test bench accuracy format clean

setup:
	scripts/setup.sh

build: setup
	$(SWIFT) build -c release --product facecrop

demo: build
	scripts/demo.sh $(BIN)

test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-xctest

bench: build
	scripts/bench.sh --bin $(BIN)
	scripts/bench-batch.sh --bin $(BIN)
	scripts/bench-video.sh --bin $(BIN)
	scripts/bench-quality.sh --bin $(BIN)
	scripts/bench-memory.sh --bin $(BIN)

accuracy: build
	python3 scripts/accuracy.py --bin $(BIN)

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

clean:
	rm -rf .build demo-out .artifacts
