# facecrop: `make demo` sets up and crops the bundled samples; `make test` sets up and runs every test;
# `make test-fast` runs the unit tests only (the pure core and argument parsing; tiers in CONTRIBUTING.md).
# `make install` (PREFIX, DESTDIR) installs the command, its man page and completions; `make deb` builds a
# Debian package. The version is the VERSION file's.
SWIFT ?= swift
VERSION := $(shell tr -d '[:space:]' < VERSION)
BIN := .build/release/facecrop
DIST := .build/dist

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/facecrop
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
INSTALL ?= install
# The installed binary is stripped of its symbol tables (about half its size); STRIP_FLAG= keeps them.
STRIP_FLAG ?= -s
DOC_SOURCES := LICENSE THIRD_PARTY_NOTICES.md CHANGELOG.md $(wildcard Models/LICENSE-*.txt)
DOC_FILES := $(notdir $(DOC_SOURCES))

.PHONY: setup setup-build build dist demo test test-fast check-docs check-install check-deb install install-files uninstall deb
.PHONY: serve install-serve uninstall-serve
.PHONY: bench accuracy format check-format docs clean

setup:
	scripts/setup.sh

# What building needs, without the test and benchmark tools (make build, install, deb).
setup-build:
	scripts/setup.sh --build

# The Swift runtime is linked statically: the binary runs without the toolchain (it needs only Debian's
# libraries, see docs/install.md). Every release target shares this one build.
build: setup-build
	$(SWIFT) build -c release --product facecrop --static-swift-stdlib

# Man page and shell completions for install and deb.
dist: build
	scripts/make-dist.sh $(BIN) $(DIST)

demo: setup build
	scripts/demo.sh $(BIN)

# The server's suites run on their own first: their tests wait on sockets and timers, which the other suites'
# tests (blocked on child processes, on Swift's cooperative pool of one thread per core) could hold up for a minute.
test: setup check-docs check-format
	$(SWIFT) build --build-tests
	scripts/build-docs.sh
	$(SWIFT) test --skip-build --disable-xctest --filter '^FaceCropServerTests\.'
	$(SWIFT) test --skip-build --disable-xctest --skip '^FaceCropServerTests\.'
	scripts/check-consumer.sh --bin .build/debug/facecrop
	scripts/check-serve-nginx.sh --bin .build/debug/facecrop-serve
	$(MAKE) check-install check-deb

# make install into a temporary DESTDIR, run from there with an empty environment, make uninstall.
check-install: dist
	scripts/check-install.sh

# make deb, dpkg -i, run /usr/bin/facecrop with an empty environment, dpkg -r (needs root).
check-deb: deb
	scripts/check-deb.sh dist/facecrop_$(VERSION)_$$(dpkg --print-architecture).deb

install: dist
	$(MAKE) --no-print-directory install-files

# facecrop-serve, the HTTP service (docs/commands/serve.md): its own release build (SwiftNIO and Hummingbird
# take a few minutes to build), the Swift runtime linked in as for facecrop. Not part of the Debian package.
SERVE_BIN := .build/release/facecrop-serve
serve: setup-build
	$(SWIFT) build -c release --product facecrop-serve --static-swift-stdlib

install-serve: serve
	$(INSTALL) -d $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 755 $(STRIP_FLAG) $(SERVE_BIN) $(DESTDIR)$(BINDIR)/facecrop-serve

uninstall-serve:
	rm -f $(DESTDIR)$(BINDIR)/facecrop-serve

# The copying alone, from what dist made (make-deb.sh stages the package with it).
install-files:
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	$(INSTALL) -m 755 $(STRIP_FLAG) $(BIN) $(DESTDIR)$(BINDIR)/facecrop
	$(INSTALL) -m 644 $(DIST)/man1/facecrop.1 $(DESTDIR)$(MANDIR)/man1/facecrop.1
	$(INSTALL) -m 644 $(DIST)/completions/facecrop.bash $(DESTDIR)$(BASHCOMPDIR)/facecrop
	$(INSTALL) -m 644 $(DIST)/completions/_facecrop $(DESTDIR)$(ZSHCOMPDIR)/_facecrop
	$(INSTALL) -m 644 $(DIST)/completions/facecrop.fish $(DESTDIR)$(FISHCOMPDIR)/facecrop.fish
	$(INSTALL) -m 644 $(DOC_SOURCES) $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/facecrop $(DESTDIR)$(MANDIR)/man1/facecrop.1 \
		$(DESTDIR)$(BASHCOMPDIR)/facecrop $(DESTDIR)$(ZSHCOMPDIR)/_facecrop $(DESTDIR)$(FISHCOMPDIR)/facecrop.fish
	cd $(DESTDIR)$(DOCDIR) 2>/dev/null && rm -f $(DOC_FILES) || true
	rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null || true

# dist/facecrop_VERSION_ARCH.deb for this machine's Debian architecture.
deb: dist
	scripts/make-deb.sh

test-fast: setup check-docs check-format
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-xctest --filter '^FaceCropCoreTests\.' --filter '^FaceCropCLITests\.ParsingTests' \
		--filter '^FaceCropServerTests\.(ImageURLTests|SignatureTests|ConfinementTests|HTTPRulesTests|OutputPlanTests|ConfigurationTests)' \
		--filter '^FaceCropTests\.(ImageFormatTests|DecodeBudgetTests|VersionTests)'

# Every relative link and #anchor between the Markdown files resolves (docs/corpus.md's content is checked by
# the corpus test, which generates the corpus anyway).
check-docs:
	python3 scripts/check-doc-links.py

# The library's DocC documentation (Sources/FaceCrop/FaceCrop.docc and the public API's doc comments) into
# .build/docs/FaceCrop.doccarchive, with the toolchain's docc; a broken link or undocumented parameter fails it.
docs:
	scripts/build-docs.sh

bench: build
	scripts/bench.sh --bin $(BIN)
	scripts/bench-batch.sh --bin $(BIN)
	scripts/bench-video.sh --bin $(BIN)
	scripts/bench-quality.sh --bin $(BIN)
	scripts/bench-memory.sh --bin $(BIN)

accuracy: build
	python3 scripts/accuracy.py --bin $(BIN)

# swift-format with the committed .swift-format (4 spaces, lines up to 160): `make format` rewrites, check-format
# (run by the test targets) fails on any file format would change or any lint finding.
format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

check-format:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

clean:
	rm -rf .build demo-out .artifacts dist
