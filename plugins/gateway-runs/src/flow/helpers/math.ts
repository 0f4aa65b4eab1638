/** Arithmetic helpers (reference formats §2.6). */
import { num, type Helpers } from './helper.js';

export const mathHelpers: Helpers = {
  add: (i) => num(i.a) + num(i.b),
  subtract: (i) => num(i.a) - num(i.b),
  multiply: (i) => num(i.a) * num(i.b),
  divide: (i) => num(i.a) / num(i.b),
  modulo: (i) => num(i.a) % num(i.b),
  abs: (i) => Math.abs(num(i.value ?? i.a)),
  round: (i) => Math.round(num(i.value ?? i.a)),
};
