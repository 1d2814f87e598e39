"""What a request on an open MCP session says of the session's use, read from any JSON
body the request checks let through: never an exception, whatever its shape. (The session
table itself is driven through a real server in test_request_checks.py.)"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightsearch.serving.request_checks import BODY_KEY
from lightsearch.serving.sessions import ASKED, CALLED, OPENED, use_of

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    | st.fixed_dictionaries({"method": inner}),
    max_leaves=20)


@given(json_values)
@settings(max_examples=30, deadline=None)
def test_any_body_is_one_of_the_uses(body):
    assert use_of({"method": "POST", BODY_KEY: body}) in (OPENED, ASKED, CALLED)


@pytest.mark.parametrize(("scope", "use"), [
    ({"method": "POST", BODY_KEY: {"jsonrpc": "2.0", "method": "notifications/initialized"}}, OPENED),
    ({"method": "POST", BODY_KEY: [{"method": "notifications/initialized"}, {"method": "initialize"}]}, OPENED),
    ({"method": "POST", BODY_KEY: {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}}, ASKED),
    ({"method": "POST", BODY_KEY: [{"method": "ping"}, {"method": "tools/call"}]}, CALLED),
    ({"method": "POST", BODY_KEY: {"jsonrpc": "2.0", "id": 3, "result": {}}}, ASKED),  # an answer to the server
    ({"method": "POST", BODY_KEY: []}, ASKED),
    ({"method": "POST", BODY_KEY: {"method": ["notifications/initialized"]}}, ASKED),
    ({"method": "POST"}, ASKED),  # a body the door did not read
    ({"method": "GET"}, ASKED),  # a stream of the server's messages
])
def test_uses(scope, use):
    assert use_of(scope) == use
