"""`fairpair sim-judge`: the fake provider HTTP server (OpenAI, Anthropic, their batch APIs)."""
