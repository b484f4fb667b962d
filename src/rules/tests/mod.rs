//! Engine tests: worked examples of the rule documents, every rule under each preset, properties.
