// The import graph of the server's source, read from the files themselves (no compiler): which file
// imports which, which module (folder under src/modules) depends on which, and what a file reaches
// through its imports. Type-only imports count: a cycle of types is still a cycle a reader must untangle.
import fs from 'node:fs';
import path from 'node:path';

/** file -> the files it imports (relative specifiers only; packages are not part of the graph). */
export type ImportGraph = Map<string, string[]>;

const SPECIFIERS = [
  /(?:^|[\n;])\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/g, // static import/export ... from
  /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g, // dynamic import
];

/** Relative specifiers of a source text, in order. */
export function importSpecifiers(source: string): string[] {
  return SPECIFIERS.flatMap((re) => [...source.matchAll(re)].map((m) => m[1]!));
}

function resolve(from: string, spec: string): string | null {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, path.join(base, 'index.ts')])
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  return null;
}

export function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : p.endsWith('.ts') ? [p] : [];
  });
}

export function buildImportGraph(srcDir: string): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of filesUnder(srcDir)) {
    const targets = importSpecifiers(fs.readFileSync(file, 'utf8'))
      .map((s) => resolve(file, s))
      .filter((t): t is string => t !== null);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Module-level edges: module -> module -> the file imports that make the edge ("a/x.ts -> b/y.ts"). */
export function moduleEdges(graph: ImportGraph, modulesDir: string): Map<string, Map<string, string[]>> {
  const moduleOf = (f: string) => {
    const rel = path.relative(modulesDir, f);
    return rel.startsWith('..') || path.isAbsolute(rel) ? null : rel.split(path.sep)[0]!;
  };
  const edges = new Map<string, Map<string, string[]>>();
  for (const [file, targets] of graph) {
    const from = moduleOf(file);
    if (!from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    for (const target of targets) {
      const to = moduleOf(target);
      if (!to || to === from) continue;
      const out = edges.get(from)!;
      out.set(to, [...(out.get(to) ?? []), `${path.relative(modulesDir, file)} -> ${path.relative(modulesDir, target)}`]);
    }
  }
  return edges;
}

/**
 * Every import cycle between modules, one per strongly connected group of modules (Tarjan), each shown as
 * a closed path with the file import behind every step, e.g. "team -> dashboard (team/team-routes.ts -> ...)".
 */
export function moduleCycles(edges: Map<string, Map<string, string[]>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group);
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  // One readable cycle per group: the shortest path from its first module back to itself, inside the group.
  return groups.map((group) => {
    const start = [...group].sort()[0]!;
    const inGroup = new Set(group);
    const prev = new Map<string, string>();
    const queue = [start];
    let last: string | undefined;
    while (queue.length && !last) {
      const v = queue.shift()!;
      for (const w of edges.get(v)?.keys() ?? []) {
        if (!inGroup.has(w)) continue;
        if (w === start) {
          last = v;
          break;
        }
        if (!prev.has(w)) {
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    const pathBack = [last!];
    while (pathBack[0] !== start) pathBack.unshift(prev.get(pathBack[0]!)!);
    pathBack.push(start);
    return pathBack.slice(0, -1).map((v, i) => `${v} -> ${pathBack[i + 1]} (${edges.get(v)!.get(pathBack[i + 1]!)![0]})`);
  });
}

/** The chain of imports by which `from` reaches `target`, or null when it does not. */
export function importChain(graph: ImportGraph, from: string, target: string): string[] | null {
  const prev = new Map<string, string>([[from, from]]);
  const queue = [from];
  while (queue.length) {
    const v = queue.shift()!;
    if (v === target) {
      const chain = [v];
      while (chain[0] !== from) chain.unshift(prev.get(chain[0]!)!);
      return chain;
    }
    for (const w of graph.get(v) ?? [])
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
  }
  return null;
}
