// `sqlx::migrate!` embeds migrations/ at compile time; without this a new migration file
// does not rebuild the binary, which then runs without it.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
