# evotest: see README.md. `make demo` and `make test` do all the set-up on a fresh machine.

LLVM_PKGS := clang-22 llvm-22-dev lld-22 libclang-rt-22-dev
BENCH_PKGS := afl++ cmake
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
CARGO ?= cargo
EVOTEST := ./target/release/evotest

.PHONY: setup setup-bench build demo test bench bench-quick bench-numeric bench-records bench-api bench-chaining bench-paths bench-fuzz bench-fuzz-quick bench-fuzz-speed bench-fuzz-sbst bench-ge bench-rust bench-rust-subjects bench-rust-fuzz clean

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

## setup-bench: also install AFL++ (Debian's 4.04c), a peer in the benchmarks
setup-bench: setup
	@if dpkg -s $(BENCH_PKGS) >/dev/null 2>&1; then \
		echo "setup-bench: AFL++ present"; \
	else \
		echo "setup-bench: installing $(BENCH_PKGS)"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(BENCH_PKGS); \
	fi

## build: the evotest binary, the compiler wrappers evotest-cc and evotest-c++ (a link to
## evotest-cxx: cargo cannot name a binary with '+'), the pass plugin, the runtime and the
## libFuzzer-compatible driver (release)
build: setup
	$(CARGO) build --release --workspace
	ln -sf evotest-cxx target/release/evotest-c++

## demo: run the tester on examples/triangle.c
demo: build
	$(EVOTEST) run examples/triangle.c --function triangle

## test: unit and end-to-end tests, including a smoke test of the benchmark with every peer
test: setup-bench
	$(CARGO) build --workspace
	$(CARGO) test --workspace

## bench: every program x tool x 10 seeds, two programs at a time, in four parts of ten programs
## (each part's results are written when it ends: bench/results/bench-{1,2,3,4}.{md,json,*.svg}).
## Caps cut from 1,000,000 executions / 60 s to 100,000 / 4 s per run so that the whole table takes
## about half an hour on two cores (27 minutes when last run).
BENCH_PART1 := triangle,expint,floatcomp,quotient,strcomp,find,tritype,gammq,remainder,calday
BENCH_PART2 := line,counter,deceptive,enumeration,flag_assignment,flag_loop_assignment,flag_avoid_loop_assignment,multiple_flag,days,quadratic
BENCH_PART3 := check_isbn,check_issn,comp_n0_c1,comp_n0_c2,comp_n0_c3,comp_n1_c1,comp_n1_c2,comp_n1_c3,comp_n2_c1,comp_n2_c2
BENCH_PART4 := comp_n2_c3,comp_n3_c1,comp_n3_c2,comp_n3_c3,comp_n4_c1,comp_n4_c2,comp_n4_c3,comp_n5_c1,comp_n5_c2,comp_n5_c3
bench: build setup-bench
	for p in 1 2 3 4; do \
	  case $$p in 1) only=$(BENCH_PART1);; 2) only=$(BENCH_PART2);; 3) only=$(BENCH_PART3);; 4) only=$(BENCH_PART4);; esac; \
	  $(EVOTEST) bench --only $$only --runs 10 --max-execs 100000 --max-time 4s --jobs 2 --name bench-$$p -q $(BENCH_ARGS) || exit 1; \
	done

## bench-quick: six programs, every tool, under 10 minutes; results in bench/results/quick.*
QUICK_PROGRAMS := triangle,expint,tritype,floatcomp,flag_assignment,counter
bench-quick: build setup-bench
	$(EVOTEST) bench --only $(QUICK_PROGRAMS) --runs 5 --max-execs 200000 --max-time 4s --name quick $(BENCH_ARGS)

## bench-numeric: the held-out numeric subjects of bench/numeric.toml (issue #11): evotest's default
## from the biased and the uniform start, 30 runs at 1,000,000 executions; libFuzzer and AFL++ with
## raw-bytes harnesses, 5 runs at 60 s each without an execution cap; two programs at a time.
## Results in bench/results/numeric.{md,json,*.svg}.
NUMERIC_TOOLS := auto,auto+uniform,libfuzzer,afl
bench-numeric: build setup-bench
	$(EVOTEST) bench --programs bench/numeric.toml --tools $(NUMERIC_TOOLS) --runs 30 --max-execs 1000000 --max-time 60s \
		--peer-runs 5 --peer-max-execs 0 --peer-max-time 60s --jobs 2 --name numeric $(BENCH_ARGS)

## bench-records: structure parameters, a buffer of structures and global variables as inputs
## (bench/records.toml, examples/records/): evotest's default from the biased and the uniform start,
## 30 runs at 1,000,000 executions; libFuzzer and AFL++ with raw-bytes harnesses, 5 runs at 60 s
## each, two at a time. Results in bench/results/records.{md,json,*.svg}.
RECORDS_TOOLS := auto,auto+uniform,libfuzzer,afl
bench-records: build setup-bench
	$(EVOTEST) bench --programs bench/records.toml --tools $(RECORDS_TOOLS) --runs 30 --max-execs 1000000 --max-time 60s \
		--peer-runs 5 --peer-max-execs 0 --peer-max-time 60s --jobs 2 --name records $(BENCH_ARGS)

## bench-api: API testing (evotest run --api) on six C APIs whose branches need call sequences
## (bench/api.toml): seq (the default), Pacheco's randoop, GödelTest's godel and undirected random sequences, 10 runs;
## evotest fuzz, libFuzzer and AFL++ on the same sequence harness, 3 runs; caps of 200,000
## executions and 30 s per run, two at a time. Results in bench/results/api.{md,json,*.svg}.
API_TOOLS := seq,randoop,godel,random,fuzz,libfuzzer,afl
bench-api: build setup-bench
	$(EVOTEST) bench --programs bench/api.toml --tools $(API_TOOLS) --runs 10 --max-execs 200000 --max-time 30s \
		--peer-runs 3 --peer-max-execs 200000 --peer-max-time 30s --jobs 2 --name api $(BENCH_ARGS)

## bench-ge: Anjum & Ryan's (2021) subjects under condition-decision coverage (issue #14): comp(n, c)
## (18 programs), Set 2 (days, quadratic, triangle, check_isbn, check_issn) and our Set 1 (ten
## constant-heavy programs). The paper's GE (seeded grammar), ge-ext (extended grammar on evotest's
## GE engine), evotest's AVM and default, 30 runs at 1,000,000 executions; the seeded grammar on
## evotest's engine (ge-blocks), the unseeded grammar, each extension alone and random, 5 runs at
## 100,000 executions (they fail often, and a failing run spends its whole cap); then the paper's
## GE on comp with the paper's scalability settings (population 300, 500 generations).
## Results in bench/results/ge-{comp,set1,set2}[-rest].{md,json} and ge-comp-paper.{md,json}.
GE_TOOLS := ge,ge-ext,avm,auto
GE_REST_TOOLS := ge-blocks,ge-unseeded,ge-dyn,ge-arith,ge-str,random
bench-ge: build
	for s in comp set2 set1; do \
	  $(EVOTEST) bench --programs bench/ge-$$s.toml --criterion condition-decision --tools $(GE_TOOLS) --runs 30 --max-execs 1000000 --max-time 300s --jobs 2 --name ge-$$s -q $(BENCH_ARGS) && \
	  $(EVOTEST) bench --programs bench/ge-$$s.toml --criterion condition-decision --tools $(GE_REST_TOOLS) --runs 5 --max-execs 100000 --max-time 300s --jobs 2 --name ge-$$s-rest -q $(BENCH_ARGS) || exit 1; \
	done
	$(EVOTEST) bench --programs bench/ge-comp.toml --criterion condition-decision --tools ge --population 300 --generations 500 --runs 30 --max-execs 1000000 --max-time 300s --jobs 2 --name ge-comp-paper -q $(BENCH_ARGS)

## bench-chaining: the seven programs of McMinn & Holcombe 2004, target branch only, 50 runs each: plain search,
## the paper's EA with chaining (both stopping rules), evotest's defaults (uniform and biased start);
## results in bench/results/chaining.{md,json}. Plain search fails at the full cap (14–27 s a run),
## so it gets 10 runs, in bench/results/chaining-plain.{md,json}.
CHAINING_TOOLS := mhga+uniform+chain,mhga50+uniform+chain,auto+uniform,auto,avm+uniform,avm
bench-chaining: build
	$(EVOTEST) bench --programs bench/chaining.toml --tools $(CHAINING_TOOLS) --runs 50 --max-execs 1000000 --max-time 60s --name chaining --no-truth $(BENCH_ARGS)
	$(EVOTEST) bench --programs bench/chaining.toml --tools avm+uniform+nochain --runs 10 --max-execs 1000000 --max-time 60s --name chaining-plain --no-truth $(BENCH_ARGS)

## bench-paths: Bueno & Jino's (2002) path-testing experiment on the 40 paths of bench/paths.toml, 10 attempts
## per path, modes [i] GA + reuse, [ii] GA, [iii] random, and evotest's AVM with and without reuse;
## results in bench/results/paths.{md,json}
bench-paths: build
	$(EVOTEST) bench-paths --attempts 10 --name paths $(BENCH_ARGS)

## bench-fuzz: eight real libraries (Debian source packages, their own libFuzzer harnesses) under
## evotest, libFuzzer and AFL++, 5 minutes per run, 2 seeds, two runs at a time (BENCH_FUZZ_SECS,
## BENCH_FUZZ_SEEDS, BENCH_FUZZ_TARGETS, BENCH_FUZZ_TOOLS override); results in
## bench/results/fuzz.{md,json} and bench/results/fuzz/*.svg (see bench/fuzz/README.md)
bench-fuzz: build setup-bench
	bench/fuzz/bench.sh full

## bench-fuzz-quick: the same at 60 s per run and one seed
bench-fuzz-quick: build setup-bench
	bench/fuzz/bench.sh quick

## bench-fuzz-speed: issue 13's speed bars: the same libraries at 60 s per run and one seed, with
## evotest's persistent fork server (`evotest`) and its in-process mode (`evotest-inprocess`,
## `--in_process`) beside libFuzzer and AFL++, two runs at a time (about 17 minutes); results in
## bench/results/inprocess/ (its runs in bench/work/fuzz/runs-inprocess/, apart from bench-fuzz's)
bench-fuzz-speed: build setup-bench
	BENCH_FUZZ_SECS=60 BENCH_FUZZ_SEEDS=1 BENCH_FUZZ_TOOLS=libfuzzer,afl,evotest,evotest-inprocess \
	BENCH_FUZZ_RUNS=$(CURDIR)/bench/work/fuzz/runs-inprocess BENCH_FUZZ_OUT=$(CURDIR)/bench/results/inprocess \
	bench/fuzz/bench.sh quick

## bench-fuzz-sbst: issue 13's SBST programs (bench/fuzz-sbst.toml) wrapped as libFuzzer harnesses
## that read every parameter's raw bytes (no ranges), all from one all-zero seed, 60 s per run
## without an execution cap: evotest fuzz with guidance on, input-to-state only and off, 10 runs
## each; libFuzzer (-use_value_profile=1) and AFL++ (CmpLog), 5 runs each; two programs at a time.
## Results in bench/results/fuzz-sbst.{md,json,*.svg}
FUZZ_SBST_TOOLS := fuzz,fuzz+i2s,fuzz+noguide,libfuzzer,afl
bench-fuzz-sbst: build setup-bench
	$(EVOTEST) bench --programs bench/fuzz-sbst.toml --tools $(FUZZ_SBST_TOOLS) --runs 10 --max-execs 0 --max-time 60s \
		--peer-runs 5 --peer-max-execs 0 --peer-max-time 60s --peer-encoding bytes --fuzzer-seed zero --jobs 2 --name fuzz-sbst $(BENCH_ARGS)

## bench-rust: both Rust benchmarks below (about 20 minutes on two cores)
bench-rust: bench-rust-subjects bench-rust-fuzz

## bench-rust-subjects: executions to full coverage of the C subjects and their Rust ports in
## examples/rust/ (triangle, tritype, expint, the seven McMinn & Holcombe flag programs), seeds
## 1-10; results in bench/results/rust-subjects.{md,json}
bench-rust-subjects: build
	python3 bench/rust/subjects.py $(BENCH_RUST_ARGS)

## bench-rust-fuzz: evotest fuzz against cargo-fuzz/libFuzzer on crates.io parsers (semver,
## httparse, imagesize; cargo fetches them), 60 s per run, 2 seeds, the two tools side by side;
## coverage by one -C instrument-coverage observer; results in bench/results/rust-fuzz.{md,json}
bench-rust-fuzz: build
	python3 bench/rust/fuzz.py $(BENCH_RUST_FUZZ_ARGS)

clean:
	$(CARGO) clean
	rm -rf evotest-out bench/work
