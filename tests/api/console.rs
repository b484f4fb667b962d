//! (console tests: being built.)
