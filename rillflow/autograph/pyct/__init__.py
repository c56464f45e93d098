"""Python code tools for AutoGraph: parsing, scope analysis, templates."""
