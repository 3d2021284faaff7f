//! `plackett`: the command-line front end (the `plackett_cli` library holds
//! the command definitions, so that tests can walk them).

fn main() {
    plackett_cli::main()
}
