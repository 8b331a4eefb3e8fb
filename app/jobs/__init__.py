"""The job kernel: what every kind of job (a comparison, a score session) shares."""
