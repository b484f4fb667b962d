//! (league night API tests: being built.)
