"""Build every client a turn needs, once per process, from settings."""

from __future__ import annotations

import asyncio

from guards.classifier.embedders import shared_e5
from guards.embedding import Embedder
from guards.judge.rules import RuleSet
from guards.llm.providers import OFFLINE
from pipeline.agent.actions import ActionDesk
from pipeline.agent.support import SupportAgent
from pipeline.agent.tools import desk_tools
from pipeline.clients.guards import JudgeClient, MaskerClient
from pipeline.core.settings import Settings
from pipeline.guardrail import Guardrail
from pipeline.memory.factory import build_memory
from pipeline.models.factory import build_llms
from pipeline.ports import DeskServices
from toolbox.client import ToolboxGateway


async def build_services(settings: Settings) -> DeskServices:
    embedder = await asyncio.to_thread(Embedder.load)
    gateway = ToolboxGateway.from_settings(settings)
    await gateway.load()
    llms = build_llms(settings, ("guardrail", "agent"))
    actions = ActionDesk(gateway)
    guardrail = Guardrail(llms["guardrail"], RuleSet.load().fast_path)
    await guardrail.warm_up()
    return DeskServices(
        # Offline, the Judge's reply brings the e5 vector its model read: the Guardrail and the
        # agent's intents here read the same model and take it instead of embedding the message.
        judge=JudgeClient(settings, readings=shared_e5() if settings.model_name == OFFLINE else None),
        masker=MaskerClient(settings),
        guardrail=guardrail,
        agent=SupportAgent(llms["agent"], desk_tools(gateway, actions),
                           max_output_tokens=settings.model_max_output_tokens,
                           history_max_messages=settings.history_max_messages),
        memory=build_memory(settings, embedder=embedder),
        closers=(gateway.aclose,),
        actions=actions,
    )


async def close_services(services: DeskServices) -> None:
    for client in (services.judge, services.masker, services.memory):
        close = getattr(client, "aclose", None)
        if close is not None:
            await close()
    for closer in services.closers:
        await closer()
