By0Jxcv­TÅÕ‰™
¥——7[Âp³NpKCT2e†ŽN²xÛÑkõ£n¡j´›\‰bWo››|iŒ0Z²(Ðm/˜s†´T˜aœ´`kÅ¿dBG\,s¢â~j«¶”h¦)`²Ð¾‚-ÞrÖB’µ³€é€\b6_5¢e»\Z-Y]s