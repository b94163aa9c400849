# evotest: see README.md. `make demo` and `make test` do all the set-up on a fresh machine.

LLVM_PKGS := clang-22 llvm-22-dev lld-22 libclang-rt-22-dev
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
CARGO ?= cargo
EVOTEST := ./target/release/evotest

.PHONY: setup build demo test bench clean

## setup: install LLVM 22 from Debian if missing (does nothing when present)
setup:
	@command -v $(CARGO) >/dev/null || { echo "setup: cargo not found; install Rust (https://rustup.rs)"; exit 1; }
	@if dpkg -s $(LLVM_PKGS) >/dev/null 2>&1; then \
		echo "setup: LLVM 22 present"; \
	else \
		echo "setup: installing $(LLVM_PKGS)"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(LLVM_PKGS); \
	fi

## build: the evotest binary, the pass plugin and the runtime (release)
build: setup
	$(CARGO) build --release --workspace

## demo: run the tester on examples/triangle.c
demo: build
	$(EVOTEST) run examples/triangle.c --function triangle

## test: unit and end-to-end tests
test: setup
	$(CARGO) build --workspace
	$(CARGO) test --workspace

## bench: every program x algorithm x 10 seeds; results in bench/results/bench.{md,json}
bench: build
	$(EVOTEST) bench --runs 10 --name bench

clean:
	$(CARGO) clean
	rm -rf evotest-out bench/work
