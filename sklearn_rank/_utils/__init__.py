"""Ground floor: array API helpers and parameter constraints; imports nothing above."""
