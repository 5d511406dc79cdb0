"""ray.util.get_node_ip_address: the address of the node the calling actor runs on (see ray/__init__.py)."""


def get_node_ip_address():
    import ray  # noqa: PLC0415

    return ray._node_ip()
