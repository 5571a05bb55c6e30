# facecrop: `make demo` sets up and crops the bundled samples; `make test` sets up and runs every test;
# `make test-fast` runs the unit tests only (the pure core and argument parsing; tiers in CONTRIBUTING.md).
SWIFT ?= swift
BIN := .build/release/facecrop

.PHONY: setup build demo test test-fast check-docs bench accuracy format clean

setup:
	scripts/setup.sh

build: setup
	$(SWIFT) build -c release --product facecrop

demo: build
	scripts/demo.sh $(BIN)

test: setup check-docs
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-xctest
	scripts/check-consumer.sh --bin .build/debug/facecrop

test-fast: setup check-docs
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-xctest --filter '^FaceCropCoreTests\.' --filter '^FaceCropCLITests\.ParsingTests'

# Every relative link and #anchor between the Markdown files resolves (docs/corpus.md's content is checked by
# the corpus test, which generates the corpus anyway).
check-docs:
	python3 scripts/check-doc-links.py

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
