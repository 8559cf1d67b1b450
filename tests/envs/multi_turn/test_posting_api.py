"""TwitterAPI scenarios: login, posting, retweets, comments, mentions, follows, queries."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fcbench.envs.multi_turn import load_class, posting_api
from fcbench.envs.multi_turn.posting_api import TwitterAPI


@pytest.fixture(autouse=True)
def _fresh_shared_defaults() -> Iterator[None]:
    """Each test starts, like a fresh official process, with empty shared default lists."""
    posting_api.reset_shared_defaults()
    yield
    posting_api.reset_shared_defaults()


def _api(**state: Any) -> TwitterAPI:
    api = TwitterAPI()
    api._load_scenario(state)
    return api


def _tweet(tid: int, user: str, text: str, tags: list[str] | None = None) -> dict[str, Any]:
    return {"id": tid, "username": user, "content": text, "tags": tags or [], "mentions": []}


def test_defaults_and_loading() -> None:
    assert load_class("TwitterAPI") is TwitterAPI
    api = _api()
    assert {k: v for k, v in vars(api).items() if not k.startswith("_")} == {
        "username": "john",
        "password": "john123",
        "authenticated": False,
        "tweets": {},
        "comments": {},
        "retweets": {},
        "following_list": ["alice", "bob"],
        "tweet_counter": 0,
    }
    loaded = _api(tweets={"3": _tweet(3, "x", "hi")}, comments={"3": []}, tweet_counter=4)
    assert list(loaded.tweets) == [3]  # tweet ids become ints...
    assert list(loaded.comments) == ["3"]  # ...comment ids do not


def test_login() -> None:
    api = _api()
    assert api.posting_get_login_status() == {"login_status": False}
    assert api.authenticate_twitter("john", "bad") == {"authentication_status": False}
    assert api.authenticate_twitter("john", "john123") == {"authentication_status": True}
    assert api.posting_get_login_status() == {"login_status": True}


def test_actions_need_login() -> None:
    api = _api(tweets={"0": _tweet(0, "john", "t")})

    def need(action: str) -> dict[str, str]:
        return {"error": f"User not authenticated. Please authenticate before {action}."}

    assert api.post_tweet("x") == need("posting")
    assert api.retweet(0) == need("retweeting")
    assert api.comment(0, "c") == need("commenting")
    assert api.follow_user("z") == need("following")
    assert api.list_all_following() == need("listing following")
    assert api.unfollow_user("alice") == need("unfollowing")
    # mention and the read-only queries do not check the login
    assert api.mention(0, ["@a"]) == {"mention_status": "Users mentioned successfully"}
    assert api.get_tweet(0)["mentions"] == ["@a"]


def test_post_retweet_comment() -> None:
    api = _api(authenticated=True, tweet_counter=5)
    posted = api.post_tweet("Hello #World", tags=["#World"], mentions=["@bob"])
    assert posted == {
        "id": 5,
        "username": "john",
        "content": "Hello #World",
        "tags": ["#World"],
        "mentions": ["@bob"],
    }
    assert api.tweets[5] is posted and api.tweet_counter == 6
    assert api.retweet(9) == {"error": "Tweet with ID 9 not found."}
    assert api.retweet(5) == {"retweet_status": "Successfully retweeted"}
    assert api.retweet(5) == {"retweet_status": "Already retweeted"}
    assert api.retweets == {"john": [5]}
    assert api.comment(9, "c") == {"error": "Tweet with ID 9 not found."}
    assert api.comment(5, "nice") == {"comment_status": "Comment added successfully"}
    assert api.comments == {5: [{"username": "john", "content": "nice"}]}
    assert api.get_tweet_comments(5) == [{"username": "john", "content": "nice"}]
    assert api.get_tweet_comments(9) == {"error": "Tweet with ID 9 not found."}
    assert api.mention(9, ["@x"]) == {"error": "Tweet with ID 9 not found."}


def test_default_lists_are_shared() -> None:
    first, second = _api(authenticated=True), _api(authenticated=True)
    first.post_tweet("a")
    second.post_tweet("b")
    first.mention(0, ["@z"])
    # [quirk] both tweets (in two instances) hold the same default list
    assert second.get_tweet(0)["mentions"] == ["@z"]
    assert posting_api.SHARED_DEFAULT_MENTIONS == ["@z"]
    posting_api.reset_shared_defaults()
    assert second.get_tweet(0)["mentions"] == []


def test_follow() -> None:
    api = _api(authenticated=True)
    assert api.follow_user("alice") == {"follow_status": False}
    assert api.follow_user("carol") == {"follow_status": True}
    assert api.list_all_following() == {"following_list": ["alice", "bob", "carol"]}
    assert api.unfollow_user("zed") == {"unfollow_status": False}
    assert api.unfollow_user("alice") == {"unfollow_status": True}
    assert api.following_list == ["bob", "carol"]


def test_queries_and_stats() -> None:
    tweets = {
        "0": _tweet(0, "john", "Rust is fun", ["#Lang"]),
        "1": _tweet(1, "mary", "Tea time", ["#rust"]),
        "2": _tweet(2, "john", "Nothing"),
    }
    api = _api(tweets=tweets, retweets={"mary": [0, 2]})
    assert api.get_tweet(7) == {"error": "Tweet with ID 7 not found."}
    assert [t["id"] for t in api.get_user_tweets("john")] == [0, 2]
    assert api.get_user_tweets("nobody") == []
    assert [t["id"] for t in api.search_tweets("RUST")] == [0]  # content, case-insensitive
    assert [t["id"] for t in api.search_tweets("#RUST")] == [1]  # a whole tag
    assert api.get_user_stats("john") == {
        "tweet_count": 2,
        "following_count": 2,
        "retweet_count": 0,
    }
    assert api.get_user_stats("mary") == {
        "tweet_count": 1,
        "following_count": 0,
        "retweet_count": 2,
    }


def test_reset_process_state_empties_the_shared_defaults() -> None:
    from fcbench.envs.multi_turn import posting_api, reset_process_state

    posting_api.SHARED_DEFAULT_MENTIONS.append("@someone")
    reset_process_state()
    assert posting_api.SHARED_DEFAULT_MENTIONS == []
