"""Optional framework adapters (extras): `pip install gumem[langchain]` for langchain.py."""
