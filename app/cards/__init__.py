"""The judge card: a standing battery of probes whose right verdict is known by construction."""
