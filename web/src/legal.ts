// What the view says the seat may do, and the card table's numbers: the page asks, never decides.
import { create, equals, type MessageInitShape } from "@bufbuild/protobuf";
import { CommandSchema, type Command } from "./gen/verrater/v1/commands_pb";
import type { LandscapeSpec, Ruleset } from "./gen/verrater/v1/ruleset_pb";
import type { PlayerView } from "./gen/verrater/v1/view_pb";

export type CommandInit = MessageInitShape<typeof CommandSchema>;

/** Whether a command is one of the view's legal commands. */
export function isLegal(view: PlayerView, init: CommandInit): boolean {
  const command = create(CommandSchema, init);
  return view.legal.some((legal: Command) => equals(CommandSchema, legal, command));
}

export function landscapeSpec(ruleset: Ruleset | null, type: number): LandscapeSpec | undefined {
  return ruleset?.cardTable?.landscapes.find((spec) => spec.type === type);
}
