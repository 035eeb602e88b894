// node-htmldiff ships no types: diff(before, after) marks insertions and deletions with <ins>/<del>.
declare module "node-htmldiff" {
	export default function diff(before: string, after: string, className?: string): string;
}
