//! Tool lists rendered for each consumer (OpenAI, Anthropic, Gemini, MCP, prompt text).

mod cache;

pub use cache::RenderCache;
