//! Sweep parameters (`-p n=1K..100K:x10`) and command templates (`./bench {n}`).

use perflab_cli::sweep::params::{MAX_VALUES, Parameter, cross_product, parse_parameter};
use perflab_cli::sweep::template::Template;
use proptest::prelude::*;

use crate::near_miss::{CASES, near_miss, odd_value};

/// Specs of every shape, each put together from possibly odd parts.
fn spec() -> impl Strategy<Value = String> {
    let step = prop_oneof![
        Just(String::new()),
        odd_value().prop_map(|f| format!(":x{f}")),
        odd_value().prop_map(|s| format!(":+{s}")),
        odd_value().prop_map(|s| format!(":{s}")),
    ];
    prop_oneof![
        (odd_value(), odd_value(), step).prop_map(|(a, b, s)| format!("n={a}..{b}{s}")),
        proptest::collection::vec(odd_value(), 0..5).prop_map(|v| format!("n={}", v.join(","))),
        near_miss("n=1K..100K:x10".to_string()),
        near_miss("t=1..8:+1".to_string()),
        near_miss("mode=fast, slow".to_string()),
        any::<String>(),
    ]
}

fn check(parameter: &Parameter) -> Result<(), TestCaseError> {
    prop_assert!(!parameter.values.is_empty() && parameter.values.len() <= MAX_VALUES);
    for value in &parameter.values {
        prop_assert!(value.number.is_none_or(f64::is_finite), "{value:?}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES * 4))]

    #[test]
    fn a_parameter_spec_gives_a_bounded_list_or_an_error_naming_it(spec in spec()) {
        match parse_parameter(&spec) {
            Ok(parameter) => check(&parameter)?,
            Err(e) => {
                let message = e.to_string();
                prop_assert!(message.starts_with(&format!("-p {spec}: ")), "{message}");
                prop_assert_eq!(e.exit_code(), 2);
            }
        }
    }

    #[test]
    fn a_template_keeps_everything_but_its_placeholders(text in prop_oneof![
        any::<String>(),
        near_miss("./bench {n} --{mode} ${HOME} {a,b} { true; } {{n}}".to_string()),
    ]) {
        let template = Template::parse(&text);
        prop_assert_eq!(template.source(), text.as_str());
        let names: Vec<String> = template.names().iter().map(|n| n.to_string()).collect();
        let point = cross_product(&[parse_parameter("n=7").unwrap()]).unwrap().remove(0);
        // Expanding never panics; without placeholders or braces the text is kept.
        let expanded = template.expand(&point);
        if !text.contains(['{', '}']) {
            prop_assert_eq!(expanded, text.clone());
        }
        let known: Vec<&str> = Vec::new();
        if let Some(name) = names.first() {
            let message = template.check("CMD", &known).unwrap_err().to_string();
            prop_assert!(message.starts_with("CMD: '"), "{message}");
            prop_assert!(message.contains(&format!("'{name}'")), "{message}");
        }
    }
}

fn refusal(spec: &str) -> String {
    parse_parameter(spec).unwrap_err().to_string()
}

#[test]
fn a_step_too_small_to_move_a_large_start_is_refused() {
    for spec in ["n=1e17..2e17:+1", "f=1..2:+1e-300", "n=1e20..1e20:+1"] {
        let message = refusal(spec);
        assert!(message.contains("never reaches its end"), "{message}");
    }
}

#[test]
fn a_range_up_to_the_largest_float_ends() {
    for spec in [
        "n=1..1.7976931348623157e308:x1e200",
        "n=1e308..1.7976931348623157e308:+1e307",
    ] {
        let parameter = parse_parameter(spec).unwrap();
        assert!(
            parameter
                .values
                .iter()
                .all(|v| v.number.is_some_and(f64::is_finite))
        );
    }
}
