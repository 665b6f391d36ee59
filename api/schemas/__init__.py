"""Response and request bodies as msgspec Structs, one module per resource."""
