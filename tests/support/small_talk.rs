//! Turns of a conversation that say little, with the everyday words questions share: the
//! crowd a selection test's evidence hides in.

pub const SMALL_TALK: &[&str] = &[
    "That sounds lovely, how is the new job going?",
    "I had a busy week, mostly errands and cleaning.",
    "Work has been strange lately, too many meetings.",
    "We should meet up in the city soon.",
    "Thanks for asking, the garden is finally sorted.",
    "My brother says hi, by the way.",
];
