//! The approval console is readable (issue 42, "contrast"): every pair of text and
//! background colours its stylesheet uses reaches WCAG 2.x's AA ratio for body text,
//! 4.5:1, in the light scheme and the dark one. The colours are read from the stylesheet
//! the crate embeds (its custom properties), so a changed colour is checked as it ships.

use std::collections::HashMap;

const CSS: &str = include_str!("../../toolset/src/console/page/console.css");

/// Text colour over background colour, as `console.css` pairs them (by custom property).
const PAIRS: [(&str, &str); 10] = [
    ("--ink", "--bg"),
    ("--ink", "--card"),
    ("--muted", "--bg"),
    ("--muted", "--card"),
    ("--accent-ink", "--accent"),
    ("--accent", "--card"),
    ("--danger", "--card"),
    ("--danger", "--warn-bg"),
    ("--ok", "--card"),
    ("--ink", "--warn-bg"),
];

/// The custom properties of the first `:root { ... }` block after `from` in the CSS.
fn scheme(from: &str) -> HashMap<String, String> {
    let start = CSS.find(from).expect("the scheme is in console.css");
    let root = start + CSS[start..].find(":root").expect("a :root block");
    let open = root + CSS[root..].find('{').expect("its opening brace");
    let close = open + CSS[open..].find('}').expect("its closing brace");
    CSS[open + 1..close]
        .split(';')
        .filter_map(|declaration| {
            let (name, value) = declaration.split_once(':')?;
            let (name, value) = (name.trim(), value.trim());
            name.starts_with("--")
                .then(|| (name.to_owned(), value.to_owned()))
        })
        .collect()
}

/// WCAG 2.x relative luminance of `#rrggbb`.
fn luminance(hex: &str) -> f64 {
    let hex = hex.strip_prefix('#').expect("a #rrggbb colour");
    assert_eq!(hex.len(), 6, "a #rrggbb colour: {hex}");
    let channel = |at: usize| {
        let value =
            f64::from(u8::from_str_radix(&hex[at..at + 2], 16).expect("hex digits")) / 255.0;
        if value <= 0.039_28 {
            value / 12.92
        } else {
            ((value + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
}

fn contrast(a: &str, b: &str) -> f64 {
    let (a, b) = (luminance(a), luminance(b));
    (a.max(b) + 0.05) / (a.min(b) + 0.05)
}

#[test]
fn every_text_colour_reaches_aa_contrast_in_both_schemes() {
    for (name, from) in [("light", ":root"), ("dark", "prefers-color-scheme: dark")] {
        let colours = scheme(from);
        for (text, background) in PAIRS {
            let ratio = contrast(&colours[text], &colours[background]);
            assert!(
                ratio >= 4.5,
                "{name} scheme: {text} ({}) on {background} ({}) is {ratio:.2}:1, under WCAG AA's 4.5:1",
                colours[text],
                colours[background]
            );
        }
    }
}

#[test]
fn the_contrast_formula_gives_wcag_figures() {
    // Black on white is 21:1; WCAG's own example, #777 on white, is 4.48:1 (fails AA).
    assert!((contrast("#000000", "#ffffff") - 21.0).abs() < 1e-9);
    assert!((contrast("#777777", "#ffffff") - 4.48).abs() < 0.01);
}
