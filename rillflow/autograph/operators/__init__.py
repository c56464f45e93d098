"""AutoGraph runtime operators: the functions converted code calls."""
