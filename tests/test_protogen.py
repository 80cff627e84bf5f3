"""The committed protobuf code is exactly what `python -m serai.protogen` generates."""

from serai import protogen


def test_regenerating_the_protobuf_code_changes_nothing():
    generated = protogen.generate()
    assert generated, "no .proto files found under proto/"
    stale = [
        str(path)
        for path, content in generated.items()
        if not (protogen.ROOT / path).exists() or (protogen.ROOT / path).read_bytes() != content
    ]
    assert not stale, f"run `python -m serai.protogen`; stale: {stale}"


def test_imports_are_rewritten_to_the_packages_that_hold_the_code():
    text = "from serai.v1 import common_pb2 as x\nfrom serai.games.nile.v1 import nile_pb2 as y\n"
    assert protogen._rewrite_imports(text) == (
        "from serai.api import common_pb2 as x\nfrom serai_nile import nile_pb2 as y\n"
    )
