//! `evotest-cc`: clang-22 with the evotest pass and runtime, a drop-in C compiler
//! (`CC=evotest-cc ./configure && make`). See `evotest::wrapper`.

fn main() {
    evotest::wrapper::main(false)
}
