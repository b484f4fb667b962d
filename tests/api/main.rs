//! Integration tests over real HTTP against a real SQLite file: one test binary, one module
//! per area (keeps link times down).

mod browser;
mod helpers;
mod pages;
mod score;
mod webdriver;
