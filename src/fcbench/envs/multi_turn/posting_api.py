"""TwitterAPI: a one-account social network (post, retweet, comment, mention, follow).

State is `username`, `password`, `authenticated`, `tweets` (int id -> tweet dict),
`comments` (tweet id -> list of comments), `retweets` (username -> tweet ids),
`following_list` and `tweet_counter` (the next tweet id).

Scenario tweets come from JSON, so their ids are strings; loading converts them to ints,
but comment ids are left as loaded (string keys), exactly as the official backend does.
Several methods return the stored tweet dict itself, and lists are returned bare, which
the runner renders with `str()` (Python repr), not JSON.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

_DEFAULT_STATE: dict[str, Any] = {
    "username": "john",
    "password": "john123",
    "authenticated": False,
    "tweets": {},
    "comments": {},
    "retweets": {},
    "following_list": ["alice", "bob"],
    "tweet_counter": 0,
}

# [quirk] The official `post_tweet` uses mutable default arguments, so every tweet posted
# without tags (mentions) holds the very same list object, shared by all instances in the
# process. `mention` extends a tweet's list in place, so mentioning such a tweet changes
# every other tweet that shares the list, in every instance (model and ground truth alike),
# until the process ends. These module-level lists are those shared defaults.
SHARED_DEFAULT_TAGS: list[str] = []
SHARED_DEFAULT_MENTIONS: list[str] = []


def reset_shared_defaults() -> None:
    """Empty the shared default lists (the state a fresh official process starts from)."""
    SHARED_DEFAULT_TAGS.clear()
    SHARED_DEFAULT_MENTIONS.clear()


reset_process_state = reset_shared_defaults


def snapshot_process_state() -> Callable[[], None]:
    """A restore of the shared default lists' contents as they are now (in place: every
    tweet holding them keeps the same list object)."""
    tags, mentions = list(SHARED_DEFAULT_TAGS), list(SHARED_DEFAULT_MENTIONS)

    def restore() -> None:
        SHARED_DEFAULT_TAGS[:] = tags
        SHARED_DEFAULT_MENTIONS[:] = mentions

    return restore


def _not_authenticated(action: str) -> dict[str, Any]:
    return {"error": f"User not authenticated. Please authenticate before {action}."}


def _missing_tweet(tweet_id: Any) -> dict[str, Any]:
    return {"error": f"Tweet with ID {tweet_id} not found."}


class TwitterAPI:
    """The posting backend; see the module docstring for the state it compares."""

    def __init__(self) -> None:
        self.username: str
        self.password: str
        self.authenticated: bool
        self.tweets: dict[int, dict[str, Any]]
        self.comments: dict[Any, list[dict[str, str]]]
        self.retweets: dict[str, list[int]]
        self.following_list: list[str]
        self.tweet_counter: int

    def _load_scenario(
        self, scenario: dict[str, Any], long_context: bool = False, release: str | None = None
    ) -> None:
        """Take each field from the scenario, else from the default account."""
        defaults = copy.deepcopy(_DEFAULT_STATE)

        def pick(field: str) -> Any:
            return scenario.get(field, defaults[field])

        self.username = pick("username")
        self.password = pick("password")
        self.authenticated = pick("authenticated")
        self.tweets = {int(key): tweet for key, tweet in pick("tweets").items()}
        self.comments = pick("comments")
        self.retweets = pick("retweets")
        self.following_list = pick("following_list")
        self.tweet_counter = pick("tweet_counter")

    def authenticate_twitter(self, username: str, password: str) -> dict[str, Any]:
        """Log in when both username and password match the account."""
        if username == self.username and password == self.password:
            self.authenticated = True
            return {"authentication_status": True}
        return {"authentication_status": False}

    def posting_get_login_status(self) -> dict[str, Any]:
        """Whether the account is logged in."""
        return {"login_status": bool(self.authenticated)}

    def post_tweet(
        self,
        content: str,
        tags: list[str] = SHARED_DEFAULT_TAGS,
        mentions: list[str] = SHARED_DEFAULT_MENTIONS,
    ) -> dict[str, Any]:
        """Store a new tweet under the next id and return the stored dict itself."""
        if not self.authenticated:
            return _not_authenticated("posting")
        tweet: dict[str, Any] = {
            "id": self.tweet_counter,
            "username": self.username,
            "content": content,
            "tags": tags,
            "mentions": mentions,
        }
        self.tweets[self.tweet_counter] = tweet
        self.tweet_counter += 1
        return tweet

    def retweet(self, tweet_id: int) -> dict[str, Any]:
        """Record a retweet by the account (once per tweet)."""
        if not self.authenticated:
            return _not_authenticated("retweeting")
        if tweet_id not in self.tweets:
            return _missing_tweet(tweet_id)
        mine = self.retweets.setdefault(self.username, [])
        if tweet_id in mine:
            return {"retweet_status": "Already retweeted"}
        mine.append(tweet_id)
        return {"retweet_status": "Successfully retweeted"}

    def comment(self, tweet_id: int, comment_content: str) -> dict[str, Any]:
        """Add a comment by the account to a tweet."""
        if not self.authenticated:
            return _not_authenticated("commenting")
        if tweet_id not in self.tweets:
            return _missing_tweet(tweet_id)
        self.comments.setdefault(tweet_id, []).append(
            {"username": self.username, "content": comment_content}
        )
        return {"comment_status": "Comment added successfully"}

    def mention(self, tweet_id: int, mentioned_usernames: list[str]) -> dict[str, Any]:
        """Append names to a tweet's mentions (no login needed, no de-duplication)."""
        if tweet_id not in self.tweets:
            return _missing_tweet(tweet_id)
        self.tweets[tweet_id]["mentions"].extend(mentioned_usernames)
        return {"mention_status": "Users mentioned successfully"}

    def follow_user(self, username_to_follow: str) -> dict[str, Any]:
        """Follow a user; False when already following."""
        if not self.authenticated:
            return _not_authenticated("following")
        if username_to_follow in self.following_list:
            return {"follow_status": False}
        self.following_list.append(username_to_follow)
        return {"follow_status": True}

    def list_all_following(self) -> dict[str, Any]:
        """The accounts followed."""
        if not self.authenticated:
            return _not_authenticated("listing following")
        return {"following_list": self.following_list}

    def unfollow_user(self, username_to_unfollow: str) -> dict[str, Any]:
        """Stop following a user; False when not following."""
        if not self.authenticated:
            return _not_authenticated("unfollowing")
        if username_to_unfollow not in self.following_list:
            return {"unfollow_status": False}
        self.following_list.remove(username_to_unfollow)
        return {"unfollow_status": True}

    def get_tweet(self, tweet_id: int) -> dict[str, Any]:
        """The stored tweet dict (no login needed)."""
        if tweet_id not in self.tweets:
            return _missing_tweet(tweet_id)
        return self.tweets[tweet_id]

    def get_user_tweets(self, username: str) -> list[dict[str, Any]]:
        """Every tweet whose author is `username`, as a bare list."""
        return [tweet for tweet in self.tweets.values() if tweet["username"] == username]

    def search_tweets(self, keyword: str) -> list[dict[str, Any]]:
        """Tweets whose text contains `keyword` or that carry it as a tag (case-insensitive)."""
        return [
            tweet
            for tweet in self.tweets.values()
            if keyword.lower() in tweet["content"].lower()
            or keyword.lower() in [tag.lower() for tag in tweet["tags"]]
        ]

    def get_tweet_comments(self, tweet_id: int) -> list[dict[str, str]] | dict[str, Any]:
        """The comments on a tweet (a bare list), or an error dict."""
        if tweet_id not in self.tweets:
            return _missing_tweet(tweet_id)
        return self.comments.get(tweet_id, [])

    def get_user_stats(self, username: str) -> dict[str, Any]:
        """Tweets by `username`; following count only for the account itself; retweets."""
        tweet_count = len(
            [tweet for tweet in self.tweets.values() if tweet["username"] == username]
        )
        following_count = len(self.following_list) if username == self.username else 0
        return {
            "tweet_count": tweet_count,
            "following_count": following_count,
            "retweet_count": len(self.retweets.get(username, [])),
        }
