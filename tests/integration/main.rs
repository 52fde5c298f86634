//! The integration tests, one program: the library through its public API and the egtb binary
//! as a user meets it, for xiangqi, dark chess and every game together.

mod support;

mod cli;
mod darkchess_all;
mod darkchess_gpu;
mod darkchess_reference;
mod darkchess_rules;
mod darkchess_space;
mod darkchess_values;
mod query_consistency;
mod xiangqi_gpu;
mod xiangqi_index;
mod xiangqi_larger;
mod xiangqi_moves;
mod xiangqi_reference;
