"""The agent card of a guard: what it does, where it answers, and how to authenticate."""

from __future__ import annotations

from dataclasses import dataclass

from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)
from a2a.utils.constants import PROTOCOL_VERSION_0_3, PROTOCOL_VERSION_1_0, TransportProtocol

BEARER_SCHEME = "bearer"


@dataclass(frozen=True)
class GuardSpec:
    """The static description of one guard service, published in its agent card."""

    name: str
    title: str
    description: str
    skill_id: str
    skill_description: str
    tags: tuple[str, ...]
    version: str = "1.0.0"


def build_agent_card(spec: GuardSpec, url: str) -> AgentCard:
    """Protocol 1.0 first (what SDK clients pick); the 0.3 interface lets 0.3 clients find us too."""
    rpc_url = url.rstrip("/") + "/"
    card = AgentCard(
        name=spec.title,
        description=spec.description,
        version=spec.version,
        supported_interfaces=[
            AgentInterface(url=rpc_url, protocol_binding=TransportProtocol.JSONRPC,
                           protocol_version=version)
            for version in (PROTOCOL_VERSION_1_0, PROTOCOL_VERSION_0_3)
        ],
        capabilities=AgentCapabilities(streaming=False, push_notifications=False),
        default_input_modes=["text/plain"],
        default_output_modes=["application/json"],
        skills=[
            AgentSkill(id=spec.skill_id, name=spec.title, description=spec.skill_description,
                       tags=list(spec.tags), input_modes=["text/plain"], output_modes=["application/json"])
        ],
    )
    card.security_schemes[BEARER_SCHEME].CopyFrom(SecurityScheme(
        http_auth_security_scheme=HTTPAuthSecurityScheme(
            scheme="Bearer", description="Derived from the token the desk pipeline shares with its guards; "
            "every reply's data part carries a `proof` HMAC made with a second key derived from it."
        )
    ))
    card.security_requirements.append(SecurityRequirement(schemes={BEARER_SCHEME: StringList()}))
    return card
