"""Player tokens (issue 22): JWTs an app signs to name its players, checked against what the
app's API key registered. Valid tokens bind a seat to the player; expired, badly signed, foreign,
wrong-audience or wrong-issuer tokens, ``alg: none`` and an HS256 token "signed" with an RSA
public key are refused; a reclaimed seat works and its old token stops working on every replica;
"my matches" lists exactly the player's own. Real ``serai serve`` processes, a real Redis, keys
made with ``serai keys``; the gRPC port and the HTTP (Connect JSON) port."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from pathlib import Path
from typing import Any

import grpc
import jwt
import pytest
from connect_helpers import json_call
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from serai.api import match_service_pb2 as pb
from test_api_keys import Keyed, code_of, http_code_of, keys

UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED


def created(redis_url: str, name: str, *flags: str) -> list[str]:
    """``serai keys create NAME FLAGS``: its output lines (the key, then any signing secret)."""
    made = keys(redis_url, "create", name, *flags)
    assert made.returncode == 0, made.stderr
    return made.stdout.split()


def claims(sub: str = "u-17", **more: Any) -> dict[str, Any]:
    return {"sub": sub, "exp": int(time.time()) + 600, **more}


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hand_signed(header: dict[str, Any], payload: dict[str, Any], key: bytes | None) -> str:
    """A JWT made by hand (PyJWT refuses to make these): HS256 over ``key``, or no signature."""
    signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(payload).encode())}"
    signature = b""
    if key is not None:
        signature = hmac.new(key, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64(signature)}"


def rsa_pair(folder: Path) -> tuple[Any, Path, bytes]:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    path = folder / "app-rsa.pem"
    path.write_bytes(pem)
    return private, path, pem


def ec_pair(folder: Path) -> tuple[Any, Path]:
    private = ec.generate_private_key(ec.SECP256R1())
    path = folder / "app-ec.pem"
    path.write_bytes(
        private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return private, path


def new_match(stub: Any) -> str:
    return str(stub.CreateMatch(pb.CreateMatchRequest(game="jaipur", seed=3)).match.match_id)


def join(stub: Any, match_id: str, player_token: str = "", name: str = "") -> Any:
    request = pb.JoinMatchRequest(match_id=match_id, player_token=player_token, player_name=name)
    return stub.JoinMatch(request)


def test_tokens_accepted_or_refused(start_serve, redis_url, tmp_path):
    """Each token is accepted or refused as it should be, with each way of checking them; a
    refusal is UNAUTHENTICATED and audit-logged by the key's name and reason, never the token."""
    hs_key, secret = created(
        redis_url,
        "hs-app",
        "--player-token-secret",
        "--player-token-issuer",
        "https://app.example",
        "--player-token-audience",
        "serai",
    )
    rsa_private, rsa_path, rsa_pem = rsa_pair(tmp_path)
    (rs_key,) = created(redis_url, "rs-app", "--player-token-public-key", str(rsa_path))
    ec_private, ec_path = ec_pair(tmp_path)
    (es_key,) = created(redis_url, "es-app", "--player-token-public-key", str(ec_path))
    (plain_key,) = created(redis_url, "plain-app")
    server = start_serve("--redis-url", redis_url, "--http-port", "0")
    good = {"iss": "https://app.example", "aud": "serai"}

    def hs(payload: dict[str, Any], key: str = secret) -> str:
        return jwt.encode(payload, key, algorithm="HS256")

    with grpc.insecure_channel(server.address) as channel:
        app, rs_app, es_app = Keyed(channel, hs_key), Keyed(channel, rs_key), Keyed(channel, es_key)
        match_id = new_match(app)
        joined = join(app, match_id, hs(claims(name="Ada", **good)), name="ignored")
        assert joined.seat_token
        seats = app.GetMatch(pb.GetMatchRequest(match_id=match_id)).match.seats
        assert seats[joined.seat].player_name == "Ada"  # the token's name; its id is not shown
        assert "u-17" not in str(app.GetMatch(pb.GetMatchRequest(match_id=match_id)))

        refused = {
            "expired": hs({**claims(**good), "exp": int(time.time()) - 3600}),
            "bad signature": hs(claims(**good), "another secret of enough length 0123456789"),
            "wrong audience": hs(claims(iss=good["iss"], aud="someone-else")),
            "wrong issuer": hs(claims(iss="https://evil.example", aud="serai")),
            "missing claim": hs({"sub": "u-18", **good}),  # no exp
            "algorithm not allowed": hand_signed({"alg": "none", "typ": "JWT"}, claims(), None),
            "malformed": "not.a.jwt",
        }
        for reason, token in refused.items():
            match_id = new_match(app)
            code, text = code_of(lambda t=token, m=match_id: join(app, m, t))
            assert code == UNAUTHENTICATED, reason
            assert "player token" in text

        # RS256 with the registered RSA key; an HS256 token whose HMAC key is that public key's
        # PEM (the classic confusion) and one signed by another RSA key are refused.
        match_id = new_match(rs_app)
        assert join(rs_app, match_id, jwt.encode(claims(), rsa_private, algorithm="RS256"))
        swapped = hand_signed({"alg": "HS256", "typ": "JWT"}, claims("u-2"), rsa_pem)
        code, _ = code_of(lambda: join(rs_app, match_id, swapped))
        assert code == UNAUTHENTICATED
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        forged = jwt.encode(claims("u-3"), other, algorithm="RS256")
        code, _ = code_of(lambda: join(rs_app, match_id, forged))
        assert code == UNAUTHENTICATED
        # ES256 with the registered EC key; an RS256 token is not taken by it.
        match_id = new_match(es_app)
        assert join(es_app, match_id, jwt.encode(claims(), ec_private, algorithm="ES256"))
        rs_token = jwt.encode(claims("u-4"), rsa_private, algorithm="RS256")
        code, _ = code_of(lambda: join(es_app, match_id, rs_token))
        assert code == UNAUTHENTICATED

        # A foreign token: another app's, sent with this app's key.
        code, _ = code_of(
            lambda: join(app, new_match(app), jwt.encode(claims(), ec_private, "ES256"))
        )
        assert code == UNAUTHENTICATED
        # A key that takes no player tokens, and no key at all (keys not required here).
        plain = Keyed(channel, plain_key)
        code, text = code_of(lambda: join(plain, new_match(plain), hs(claims(**good))))
        assert code == UNAUTHENTICATED and "takes no player tokens" in text
        anonymous = Keyed(channel, "")
        code, text = code_of(lambda: join(anonymous, new_match(anonymous), hs(claims(**good))))
        assert code == UNAUTHENTICATED and "needs the API key" in text
        assert join(anonymous, new_match(anonymous)).seat_token  # without a token: as before

    http, bearer = server.http_address, {"authorization": f"Bearer {hs_key}"}
    match_id = json_call(http, "CreateMatch", {"game": "jaipur"}, **bearer)["match"]["matchId"]
    answer = json_call(
        http,
        "JoinMatch",
        {"matchId": match_id, "playerToken": hs(claims("u-9", name="Bo", **good))},
        **bearer,
    )
    assert answer["seatToken"]
    code, _ = http_code_of(
        lambda: json_call(
            http, "JoinMatch", {"matchId": match_id, "playerToken": refused["expired"]}, **bearer
        )
    )
    assert code == "UNAUTHENTICATED"

    log = server.log()
    for reason in ("expired", "bad signature", "wrong audience", "wrong issuer", "missing claim"):
        assert f'"reason": "{reason}"' in log, reason
    assert '"key": "hs-app"' in log and '"key": "rs-app"' in log and '"key": "es-app"' in log
    assert '"reason": "key takes no player tokens"' in log
    for token in (*refused.values(), swapped, forged):
        signature = token.rsplit(".", 1)[-1]
        assert token not in log and (not signature or signature not in log)
    assert secret not in log


def test_reclaimed_seat(start_replicas, redis_url):
    """The player gets their seat back from another server (another device): the new token
    plays, the old one is refused on both servers, even where the match was cached; a player
    holds one seat of a match, and another player holds none to reclaim."""
    key, secret = created(redis_url, "app", "--player-token-secret")
    first, second = start_replicas(2, "--redis-url", redis_url, "--http-port", "0")
    ada = jwt.encode(claims("ada", exp=int(time.time()) + 600), secret, algorithm="HS256")
    bo = jwt.encode(claims("bo"), secret, algorithm="HS256")
    with (
        grpc.insecure_channel(first.address) as one,
        grpc.insecure_channel(second.address) as two,
    ):
        on_first, on_second = Keyed(one, key), Keyed(two, key)
        match_id = new_match(on_first)
        seat = join(on_first, match_id, ada).seat
        other = join(on_first, match_id)
        tokens = {seat: "", other.seat: other.seat_token}
        code, text = code_of(lambda: join(on_first, match_id, ada))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "ReclaimSeat" in text
        assert (
            on_first.GetMatch(pb.GetMatchRequest(match_id=match_id)).match.status
            == pb.MATCH_STATUS_RUNNING
        )
        # Reclaimed on the second server (over HTTP), then again on the first: the token of the
        # first reclaim is as old as the join's now.
        answer = json_call(
            second.http_address,
            "ReclaimSeat",
            {"matchId": match_id, "playerToken": ada},
            authorization=f"Bearer {key}",
        )
        assert answer.get("seat", 0) == seat
        old_token = answer["seatToken"]
        again = on_first.ReclaimSeat(pb.ReclaimSeatRequest(match_id=match_id, player_token=ada))
        assert again.seat == seat and again.seat_token != old_token
        tokens[seat] = again.seat_token
        for stub in (on_first, on_second):  # the new token plays; the old one is refused
            legal = stub.ListLegalMoves(
                pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[seat])
            )
            assert legal.seat == seat
            code, text = code_of(
                lambda s=stub: s.ListLegalMoves(
                    pb.ListLegalMovesRequest(match_id=match_id, seat_token=old_token)
                )
            )
            assert code == grpc.StatusCode.PERMISSION_DENIED
            assert f"seat {seat} of match {match_id} was replaced" in text  # not "wrong token"
        # Reclaimed once more on the second server: the first one's cached copy is behind, and
        # a move there with the token it knows is refused all the same (its commit finds the
        # new record).
        third = on_second.ReclaimSeat(pb.ReclaimSeatRequest(match_id=match_id, player_token=ada))
        stale_id = f"{legal.version}.0"
        code, _ = code_of(
            lambda: on_first.SubmitMove(
                pb.SubmitMoveRequest(match_id=match_id, seat_token=tokens[seat], move_id=stale_id)
            )
        )
        assert code == grpc.StatusCode.PERMISSION_DENIED
        tokens[seat] = third.seat_token
        to_act = on_first.GetMatch(pb.GetMatchRequest(match_id=match_id)).to_act[0]
        legal = on_first.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=match_id, seat_token=tokens[to_act])
        )
        moved = on_second.SubmitMove(
            pb.SubmitMoveRequest(
                match_id=match_id, seat_token=tokens[to_act], move_id=legal.moves[0].id
            )
        )
        assert moved.snapshot.version == legal.version + 1
        code, _ = code_of(
            lambda: on_second.ReclaimSeat(pb.ReclaimSeatRequest(match_id=match_id, player_token=bo))
        )
        assert code == grpc.StatusCode.NOT_FOUND
        code, _ = code_of(lambda: on_second.ReclaimSeat(pb.ReclaimSeatRequest(match_id=match_id)))
        assert code == UNAUTHENTICATED


def test_my_matches(start_serve, redis_url):
    """ListMatches with a player token lists exactly the matches where that player holds a
    seat: not another player's, nor those of the same player id at another app; by status too;
    on both ports."""
    key_a, secret_a = created(redis_url, "app-a", "--player-token-secret")
    key_b, secret_b = created(redis_url, "app-b", "--player-token-secret")
    server = start_serve("--redis-url", redis_url, "--http-port", "0")

    def token(secret: str, sub: str) -> str:
        return jwt.encode(claims(sub), secret, algorithm="HS256")

    with grpc.insecure_channel(server.address) as channel:
        a, b = Keyed(channel, key_a), Keyed(channel, key_b)
        mine = []
        for _ in range(3):
            match_id = new_match(a)
            join(a, match_id, token(secret_a, "u1"))
            mine.append(match_id)
        join(a, mine[0], token(secret_a, "u2"))  # u1's first match starts
        theirs = new_match(a)
        join(a, theirs, token(secret_a, "u2"))
        new_match(a)  # nobody's
        at_b = new_match(b)
        join(b, at_b, token(secret_b, "u1"))  # the same player id, another app

        def listed(stub: Any, player_token: str, **filters: Any) -> list[str]:
            request = pb.ListMatchesRequest(player_token=player_token, **filters)
            return [m.match_id for m in stub.ListMatches(request).matches]

        assert sorted(listed(a, token(secret_a, "u1"))) == sorted(mine)
        assert listed(a, token(secret_a, "u1"), status=pb.MATCH_STATUS_RUNNING) == [mine[0]]
        assert sorted(listed(a, token(secret_a, "u1"), status=pb.MATCH_STATUS_OPEN)) == sorted(
            mine[1:]
        )
        assert sorted(listed(a, token(secret_a, "u2"))) == sorted([mine[0], theirs])
        assert listed(a, token(secret_a, "u3")) == []
        assert listed(b, token(secret_b, "u1")) == [at_b]
        page = a.ListMatches(pb.ListMatchesRequest(player_token=token(secret_a, "u1"), limit=2))
        assert len(page.matches) == 2 and page.next_page_token
        rest = a.ListMatches(
            pb.ListMatchesRequest(
                player_token=token(secret_a, "u1"), limit=2, page_token=page.next_page_token
            )
        )
        assert sorted([m.match_id for m in (*page.matches, *rest.matches)]) == sorted(mine)
        # app-a's player token with app-b's key: refused, not listed at b
        code, _ = code_of(lambda: listed(b, token(secret_a, "u1")))
        assert code == UNAUTHENTICATED
    answer = json_call(
        server.http_address,
        "ListMatches",
        {"playerToken": token(secret_b, "u1")},
        authorization=f"Bearer {key_b}",
    )
    assert [m["matchId"] for m in answer["matches"]] == [at_b]


def test_sdk(start_serve, redis_url):
    """The Python SDK, sync and asyncio: ``api_key`` sends the key with every call (a watch
    too), ``join(player_token=...)`` binds the seat, ``reclaim_seat`` gives a new token that
    plays while the old one is refused, ``list_matches(player_token=...)`` lists the player's."""
    import asyncio

    from serai_client import SeraiClient
    from serai_client.aio import AsyncSeraiClient
    from serai_client.errors import PermissionDeniedError, UnauthenticatedError

    key, secret = created(redis_url, "app", "--player-token-secret")
    server = start_serve("--redis-url", redis_url, "--require-api-key")
    ada = jwt.encode(claims("ada", name="Ada"), secret, algorithm="HS256")
    with (
        SeraiClient(server.address, unavailable_for=0) as anonymous,
        pytest.raises(UnauthenticatedError),
    ):
        anonymous.create_match("jaipur")
    with SeraiClient(server.address, api_key=key) as client:
        match = client.create_match("jaipur", seed=1)
        mine = client.join(match.match_id, player_token=ada)
        client.join(match.match_id)
        back = client.reclaim_seat(match.match_id, ada)
        assert back.seat == mine.seat and back.token != mine.token
        assert client.legal_moves(back).seat == mine.seat
        with pytest.raises(PermissionDeniedError):
            client.legal_moves(mine)
        assert [m.match_id for m in client.list_matches(player_token=ada)] == [match.match_id]
        assert next(iter(client.watch(back))).kind

    async def asynchronous() -> None:
        async with AsyncSeraiClient(server.address, api_key=key) as client:
            match = await client.create_match("jaipur", seed=2)
            mine = await client.join(match.match_id, player_token=ada)
            back = await client.reclaim_seat(match.match_id, ada)
            assert back.seat == mine.seat and back.token != mine.token
            listed = await client.list_matches(player_token=ada)
            assert sorted(m.match_id for m in listed) == sorted([match.match_id, first])
            async for event in client.watch(back):
                assert event.kind
                break

    first = match.match_id
    asyncio.run(asynchronous())


def test_jwks(start_serve, redis_url):
    """A key registered with a JWKS URL takes RS256 tokens signed by a key the set names (by
    ``kid``), and refuses one whose ``kid`` it does not list and an HS256 token whose secret
    is a key of the set (a symmetric key in a JWKS is never used)."""
    import http.server
    import threading

    signer = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(signer.public_key()))
    shared = {"kty": "oct", "kid": "shared", "k": b64(b"a shared secret of thirty-two bytes")}
    body = json.dumps({"keys": [{**public, "kid": "k1", "use": "sig"}, shared]}).encode()

    class Jwks(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Jwks)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{site.server_address[1]}/jwks.json"
        (key,) = created(redis_url, "app", "--player-token-jwks-url", url)
        server = start_serve("--redis-url", redis_url)
        with grpc.insecure_channel(server.address) as channel:
            app = Keyed(channel, key)
            good = jwt.encode(claims(), signer, algorithm="RS256", headers={"kid": "k1"})
            assert join(app, new_match(app), good).seat_token
            unknown = jwt.encode(claims(), signer, algorithm="RS256", headers={"kid": "k9"})
            symmetric = jwt.encode(
                claims(),
                b"a shared secret of thirty-two bytes",
                algorithm="HS256",
                headers={"kid": "shared"},
            )
            for token in (unknown, symmetric):
                code, _ = code_of(lambda t=token: join(app, new_match(app), t))
                assert code == UNAUTHENTICATED
        log = server.log()
        assert '"reason": "unknown signing key"' in log
    finally:
        site.shutdown()
