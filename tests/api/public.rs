//! (public tests: being built.)
