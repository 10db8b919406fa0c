"""Bake-off configurations bundled with cws-bench (``default``, ``sighan2005``, ``domains``, ``neural``, ``tokenizers``)."""
