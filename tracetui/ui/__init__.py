"""The Textual viewer (`tracetui view`). Imported only by the view command: the core never needs it."""
