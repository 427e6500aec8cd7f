# kapi: build, test, lint, bench, demo. `make demo` and `make test` are the README's first two commands.
CARGO ?= cargo
KAPI_BIN ?= $(CURDIR)/target/debug/kapi
export KAPI_NO_PROJECT := 1

.PHONY: install pofilter-agree plurals-agree build test e2e e2e-hosts e2e-precommit lint bench bench-formats bench-apply bench-mcp bench-hooks bench-code bench-toolbox bench-translate bench-hostile demo release fmt plugin-bundle dev-skills publish-skill

build:
	$(CARGO) build --bin kapi

## Put `kapi` on PATH (~/.cargo/bin): every host entry `kapi init` writes runs `kapi` from PATH.
## Beside it, the links kcat, kgrep, ksed and kdiff: kapi run by those names is `kapi cat` ….
install:
	$(CARGO) install --locked --path .
	@bin="$${CARGO_INSTALL_ROOT:-$${CARGO_HOME:-$$HOME/.cargo}}/bin"; \
	  for tool in kcat kgrep ksed kdiff; do ln -sf kapi "$$bin/$$tool"; done; \
	  echo "linked kcat, kgrep, ksed and kdiff to kapi in $$bin"

release:
	$(CARGO) build --release --bin kapi

## Run kapi on the sample project: its known violations fail the gate (exit 3) on purpose.
demo: build
	@echo '$$ kapi check   (in examples/handbook)'
	@cd examples/handbook && env -u KAPI_NO_PROJECT $(KAPI_BIN) check; status=$$?; \
	  echo "(exit $$status: 3 means the gate was not met, as the sample's planted violations intend)"; \
	  test $$status -eq 3 -o $$status -eq 0

## Every test: unit, CLI (the real binary) and e2e.
test: build
	@if $(CARGO) nextest --version >/dev/null 2>&1; then \
	  KAPI_BIN=$(KAPI_BIN) $(CARGO) nextest run --workspace --no-fail-fast; \
	else \
	  KAPI_BIN=$(KAPI_BIN) $(CARGO) test --workspace --no-fail-fast; \
	fi

## The e2e suite alone (the CLI/MCP conformance suite among it), over the built binary.
e2e: build
	@if $(CARGO) nextest --version >/dev/null 2>&1; then \
	  KAPI_BIN=$(KAPI_BIN) $(CARGO) nextest run -p kapi-e2e --no-fail-fast; \
	else \
	  KAPI_BIN=$(KAPI_BIN) $(CARGO) test -p kapi-e2e --no-fail-fast; \
	fi

## The real Claude Code and Codex CLIs (pinned in hosts/package-lock.json, installed by npm) run
## against a scripted model on 127.0.0.1, in a project `kapi init` wired; see hosts/README.md.
e2e-hosts: build
	bash hosts/install.sh
	env -u KAPI_NO_PROJECT timeout 900 python3 hosts/run.py --kapi $(KAPI_BIN)

## The real pre-commit installs kapi from this checkout as `.pre-commit-hooks.yaml` says
## (`language: rust`) and stops a commit that adds a forbidden term; see scripts/README.md.
e2e-precommit:
	bash scripts/e2e-precommit.sh

## fmt, clippy, rustdoc (broken links and stray HTML are errors), unused dependencies
## (cargo-machete, installed on first use) and the size limits (no function over 120 lines, no
## file over 1,200 lines of non-test code: scripts/size-limits.py).
lint:
	$(CARGO) fmt --all -- --check
	python3 scripts/size-limits.py
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps
	@command -v cargo-machete >/dev/null || $(CARGO) install --locked cargo-machete@0.9.2
	cargo machete
	CARGO_TARGET_DIR=$(CURDIR)/target $(CARGO) check --manifest-path fuzz/Cargo.toml

fmt:
	$(CARGO) fmt --all

bench: release
	cargo build --release -p kapi-core --example roundtrip
	env -u KAPI_NO_PROJECT KAPI_BIN=$(CURDIR)/target/release/kapi bash bench/run.sh
	KAPI_BIN=$(CURDIR)/target/release/kapi bash bench/formats.sh
	KAPI_BIN=$(CURDIR)/target/release/kapi bash bench/apply.sh
	KAPI_BIN=$(CURDIR)/target/release/kapi python3 bench/mcp.py
	KAPI_BIN=$(CURDIR)/target/release/kapi python3 bench/hooks.py
	KAPI_BIN=$(CURDIR)/target/release/kapi python3 bench/code.py
	KAPI_BIN=$(CURDIR)/target/release/kapi python3 bench/toolbox.py
	KAPI_BIN=$(CURDIR)/target/release/kapi python3 bench/translate.py

# Only the code-comment benchmark (a Rust source tree from cargo's registry, against grep).
bench-code: release
	KAPI_BIN=$(CURDIR)/target/release/kapi python3 bench/code.py

# Only the text tools' benchmark (kgrep over the Rust book, against grep and rg).
bench-toolbox: release
	KAPI_BIN=$(CURDIR)/target/release/kapi python3 bench/toolbox.py

# Only the unattended translation benchmark (kapi up --provider pseudo over Django's PO files).
bench-translate: release
	KAPI_BIN=$(CURDIR)/target/release/kapi python3 bench/translate.py

# Only the format benchmark (throughput, inspect, translation checks vs pofilter).
bench-formats: release
	cargo build --release -p kapi-core --example roundtrip
	KAPI_BIN=$(CURDIR)/target/release/kapi bash bench/formats.sh

# Only the MCP server benchmark (start-up, check_file latency, read_blocks, tools/list size).
bench-mcp: release
	KAPI_BIN=$(CURDIR)/target/release/kapi python3 bench/mcp.py

# Only the hook benchmark (pre-edit, post-edit and stop latency, one process per call).
bench-hooks: release
	KAPI_BIN=$(CURDIR)/target/release/kapi python3 bench/hooks.py

# Only the hostile-input benchmark (wall time and peak memory of inputs built to be expensive:
# one line of millions of words, megabytes of findings over MCP), a Markdown table on stdout.
bench-hostile: release
	KAPI_BIN=$(CURDIR)/target/release/kapi python3 bench/hostile.py

# Only the change-set benchmark (kapi apply on a 100 KB Markdown file and a 5 MB catalog).
bench-apply: release
	KAPI_BIN=$(CURDIR)/target/release/kapi bash bench/apply.sh

## Check the pofilter verdicts recorded in testdata/pofilter/ against the real pofilter.
pofilter-agree:
	bash scripts/pofilter-agree.sh

plurals-agree: build
	bash scripts/plurals-agree.sh

## Fuzz every format reader for FUZZ_SECONDS each (needs cargo-fuzz and nightly).
FUZZ_SECONDS ?= 60
fuzz:
	bash scripts/fuzz.sh $(FUZZ_SECONDS)

## Copies of skills/kapi/ (never a second tree; a test compares every committed copy).
plugin-bundle:
	bash scripts/skill-copies.sh plugin-bundle

dev-skills:
	bash scripts/skill-copies.sh dev-skills

## make publish-skill DEST=~/skills
publish-skill:
	bash scripts/skill-copies.sh publish-skill "$(DEST)"
