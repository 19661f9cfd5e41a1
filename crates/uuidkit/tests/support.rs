//! What the modules of this test binary share.

/// The name the test harness gives test `name` of the module whose `module_path!()` is
/// `module`: that path without this binary's crate name. A test that runs this binary
/// again for one test alone passes it with `--exact`; a bare function name would match
/// no test, and the run would pass without having run anything.
pub fn test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, path)) => format!("{path}::{name}"),
        None => name.to_string(),
    }
}

#[test]
fn test_name_is_the_harness_name() {
    assert_eq!(
        test_name(module_path!(), "test_name_is_the_harness_name"),
        "support::test_name_is_the_harness_name"
    );
    assert_eq!(test_name("it", "a"), "a");
}
