// Every import form TypeScript allows, and the declarations core indexes.
import Default from './default';
import { a, b as c } from "../b";
import * as ns from 'pkg';
import Def2, { type T1, "string-name" as sn } from '@scope/pkg/sub';
import type { OnlyType } from './types';
import fs = require('fs');
import './side-effect';
import {
  multi,
  line,
} from './multi-line';
export { x } from './x';
export { default as Y, z } from './y';
export * from './star';
export * as starNs from './star-ns';
export type { Q } from './q';

// Not imports: require('./in-comment') and import('./in-comment').
const text = "require('./in-string')";
const lazy = () => import('./lazy');
const member = fs.require('./member');
type Mod = typeof import('./type-level');
const meta = import.meta.url;

export function exported(): void {}
function plain(a: string): string { return a; }
export default function defaultFn() {}
function overload(a: string): void;
function overload(a: any) {}
declare function ambient(): void;
function* gen() {}

export abstract class Base<T> {
  private field = 1;
  constructor() {}
  get value(): number { return 1; }
  set value(v: number) {}
  static async create(): Promise<void> {}
  #secret() {}
  abstract run(): void;
  ['computed']() {}
}

class Impl extends Base<string> { run() { require('./in-method'); } }

export interface Shape { area(): number }
type Alias = string | number;
export enum Color { Red, Green }
export const arrow = (n: number) => n * 2, plainConst = 3;
let fnExpr = function () {};
var old = 1, { destructured } = obj;
const wrapped = (() => 1) as unknown as () => number;
export const Status = { On: 1 } as const;
export type Status = (typeof Status)[keyof typeof Status];
namespace Inner { export const hidden = 1; }

// Members of a namespace import: in expressions and in types; not a
// property of something else that happens to share its name.
export const viaNs: ns.Options = ns.helper(ns.other, other.ns.notIt);
ns.helper(ns?.optional);
