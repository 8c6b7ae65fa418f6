"""The Data Masker as an A2A service (127.0.0.1:10003 by default)."""
