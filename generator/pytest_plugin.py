"""pytest plugin (entry point ``pytest11``): ``booster_pack`` / ``booster_packs`` fixtures."""
