import { ok } from './ok';

export function good() {}

function bad( {
  return 1;

export const after = 2;
