declare module 'graphology-layout-forceatlas2/iterate.js' {
  export default function iterate(options: object, nodeMatrix: Float32Array, edgeMatrix: Float32Array): unknown;
}
