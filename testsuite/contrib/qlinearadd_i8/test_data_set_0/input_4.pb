BBsJ
ף<