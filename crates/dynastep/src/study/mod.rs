//! Studies over many runs, above the analyses and io/: [`sweep`] (a grid of model values, schemes
//! and step sizes; the sweep table and the merge of shard tables) and [`compare`] (every method at
//! every step size or tolerance, its error against a reference and its cost: work–precision data)
//! and [`choice`] (the scheme × formulation pair that reaches a tolerance fastest on a model, from
//! runs on its [`trial`]), and [`switch`] (the pair taken without a trial: Adams PECE, switched to
//! an implicit pair when the run turns out stiff).

pub mod choice;
pub mod compare;
pub mod error;
pub mod sweep;
pub mod switch;
pub mod trial;
