//! `evotest-cxx` (also installed as `evotest-c++`): clang++-22 with the evotest pass and runtime,
//! a drop-in C++ compiler (`CXX=evotest-c++ cmake …`). See `evotest::wrapper`.

fn main() {
    evotest::wrapper::main(true)
}
