/**
 * Seed 004's function-declaration style: flat declarations for the model, and where each
 * function lives. `roll.ts` is imported the first time the model calls `roll_dice`.
 */
export const pluginDescription = "掷骰子";

export const dynamicImports = {
  "./roll.ts": ["roll_dice"],
};

export const functionDeclarations = [
  {
    name: "roll_dice",
    description: "掷骰子并把结果直接发到聊天里。有人要掷骰子、抽个随机数时使用。",
    parameters: {
      type: "object",
      properties: {
        sides: { type: "integer", minimum: 2, maximum: 1000, description: "骰子的面数，默认 6" },
        count: { type: "integer", minimum: 1, description: "骰子个数，默认 1" },
      },
    },
  },
];
