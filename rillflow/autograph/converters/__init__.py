"""AutoGraph converters: one module per Python construct."""
