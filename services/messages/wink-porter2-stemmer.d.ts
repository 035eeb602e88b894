// wink-porter2-stemmer ships no types: stem(word) gives the Porter2 (English) stem of a lowercase word.
declare module "wink-porter2-stemmer" {
	export default function stem(word: string): string;
}
