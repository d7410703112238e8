"""Numeric-format claims: their shapes (claims.py, pydantic only) and their exact checks (verify.py)."""
