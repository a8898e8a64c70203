"""A group of server processes serving one site: the Redis bus, table leases and the relay between them."""
