"""Talking to judge models: prompts, parsing, providers, retries and the simulated judge."""
