"""Functions: drop decorators (the function is being converted already)."""


def transform(node, ctx):
    """Removes the decorators of the function being converted."""
    node.decorator_list = []
    return node
