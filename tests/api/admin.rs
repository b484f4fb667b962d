//! (admin tests: being built.)
