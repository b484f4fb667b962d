//! Engine tests: worked examples of the rule documents, every rule under each preset, properties.

// Hands are built as JSON values and passed as one-element slices (`&[hand.clone()]`) for
// readability.
#![allow(clippy::cloned_ref_to_slice_refs)]

mod endings;
mod examples;
mod overrides;
mod props;
mod rules_each;
mod support;
mod validation;
